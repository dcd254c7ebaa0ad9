$ qconf -srqs flt14
