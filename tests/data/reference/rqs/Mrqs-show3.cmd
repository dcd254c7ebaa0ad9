$ qconf -srqs
