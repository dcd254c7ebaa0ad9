$ qconf -srqs flt18
