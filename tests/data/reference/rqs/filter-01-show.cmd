$ qconf -srqs flt01
