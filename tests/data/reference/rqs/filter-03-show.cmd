$ qconf -srqs flt03
