# the initial tree of git.yml: a repository src with commits one, two,
# three on main (tag v1 at one, annotated v2 at two) and dev one commit
# further, made with fixed names and dates so that its hashes are the
# ones the golden file holds
rm -rf $1 && mkdir -p $1/src && cd $1/src || exit 1
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.org GIT_AUTHOR_DATE=2020-01-02T03:04:05Z
export GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@example.org GIT_COMMITTER_DATE=2020-01-02T03:04:05Z
export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent
git init -q -b main || exit 1
for n in one two three; do
	echo $n >>f.txt && git add f.txt && git commit -q -m $n || exit 1
	[ $n = one ] && git tag v1
	[ $n = two ] && git tag -a v2 -m v2
done
git checkout -q -b dev && echo dev >dev.txt && git add dev.txt && git commit -q -m dev && git checkout -q main
