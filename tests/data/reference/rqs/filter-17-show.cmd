$ qconf -srqs flt17
