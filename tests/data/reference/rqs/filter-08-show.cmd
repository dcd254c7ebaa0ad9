$ qconf -srqs flt08
