$ qconf -srqs flt09
