$ qconf -srqs rname3
