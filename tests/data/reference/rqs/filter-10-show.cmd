$ qconf -srqs flt10
