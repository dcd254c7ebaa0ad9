$ qconf -srqs flt02
