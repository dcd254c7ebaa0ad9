$ qconf -srqs flt12
