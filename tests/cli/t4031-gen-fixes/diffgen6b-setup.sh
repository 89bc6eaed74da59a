# the initial tree of diffgen6b.yml: a file to wait for, one to fetch, an
# fstab, a directory for temporary files
rm -rf $1 && mkdir -p $1/tf $1/got && cd $1 || exit 1
printf 'alpha=1\nbeta=2\ngamma = 3\n' >waited && : >empty && printf 'payload\n' >src
printf 'proc /proc proc defaults 0 0\n' >fstab
