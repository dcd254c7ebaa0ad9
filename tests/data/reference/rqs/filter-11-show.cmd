$ qconf -srqs flt11
