rm -rf "$1" && mkdir -p "$1/t/sub/deep" && cd "$1" || exit 1
printf 'alpha\nbeta\n' >f; printf '[main]\nalpha = 1\n' >p.ini
echo a >t/a.txt; echo d >t/sub/d.txt; echo f >t/sub/deep/f.txt; ln -s sub t/lnk; ln -s sub/deep t/lnk2
