$ qconf -srqs longdesc
