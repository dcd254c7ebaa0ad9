$ qconf -srqs flt04
