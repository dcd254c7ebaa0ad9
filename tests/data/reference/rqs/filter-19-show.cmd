$ qconf -srqs flt19
