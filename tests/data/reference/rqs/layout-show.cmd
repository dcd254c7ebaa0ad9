$ qconf -srqs layout
