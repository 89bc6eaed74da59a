rm -rf $1 && mkdir -p $1/frags $1/outdir $1/ini
cd $1
printf 'one\n' > frags/01; printf 'two' > frags/02; printf 'hid\n' > frags/.h
echo not a dir > notdir
echo old > target; ln -s target lnk
printf '[main]\nalpha = 1\n' > ini/p.ini; chmod 644 ini/p.ini
