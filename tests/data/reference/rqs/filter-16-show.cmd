$ qconf -srqs flt16
