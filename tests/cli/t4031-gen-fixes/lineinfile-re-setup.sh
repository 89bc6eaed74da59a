rm -rf $1 && mkdir -p $1 && echo a > $1/f
