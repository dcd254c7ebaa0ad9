$ qconf -srqs nosuch
