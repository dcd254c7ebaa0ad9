$ qconf -srqs flt05
