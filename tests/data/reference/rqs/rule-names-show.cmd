$ qconf -srqs rname,rname2,rname3
