# the initial tree of diffgen6.yml: source files (one for each copy that
# changes its source), a file behind a link, a dangling link, a plain file
# and a directory
rm -rf $1 && mkdir -p $1/dir && cd $1 || exit 1
for n in 1 2 3 4 5 6; do printf 'beta=2\n[main]\nalpha=%s\n' $n >src$n && chmod 644 src$n; done
chmod 755 src4 src6
printf 'last line\n' >target && chmod 644 target && ln -s target link
ln -s nowhere dangling && ln -s nowhere dangling2 && ln -s nowhere dangling3
printf 'alpha=1\n\n' >plain && printf 'old\n' >dest4 && chmod 755 dest4 && : >dest6
printf 'key: value\n' >existing && chmod 755 existing && printf 'inner\n' >dir/inner
