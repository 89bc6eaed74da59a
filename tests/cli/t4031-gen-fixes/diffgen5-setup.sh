# the initial tree of diffgen5.yml: a source directory, a file behind a
# link, a directory, dangling links and a plain file
rm -rf $1 && mkdir -p $1/srcdir/sub $1/dir $1/t && cd $1 || exit 1
printf 'a\n' >srcdir/a && printf 'b\n' >srcdir/sub/b && printf 'inner\n' >dir/inner
printf 'alpha=9\n' >target && chmod 644 target && ln -s target link
ln -s nowhere dangling && ln -s nowhere dangling2 && printf 'x\n' >file && printf 'y\n' >file2
printf 'one\n' >t/one && printf 'one\n' >srcfile
