$ qconf -srqs flt06
