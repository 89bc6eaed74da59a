rm -rf $1 && mkdir -p $1/d $1/e
