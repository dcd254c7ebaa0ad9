$ qconf -srqs flt15
