$ qconf -srqs flt07
