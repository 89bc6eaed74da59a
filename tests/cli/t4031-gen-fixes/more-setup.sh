rm -rf $1 && mkdir -p $1/t/sub/deep $1/frags $1/outdir $1/srcdir/sub
cd $1
echo a > t/a.txt; echo d > t/sub/d.txt; echo f > t/sub/deep/f.txt; ln -s sub t/lnk; ln -s sub/deep t/lnk2
echo x > frags/01; echo y > frags/02
echo target > target; ln -s target dest
printf '[main]\nlast line\nbeta=2\n' > rep; chmod 600 rep; chown nobody:nogroup rep
mkdir sdir
echo a > srcdir/a; echo b > srcdir/sub/b
