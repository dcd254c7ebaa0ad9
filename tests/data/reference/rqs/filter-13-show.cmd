$ qconf -srqs flt13
