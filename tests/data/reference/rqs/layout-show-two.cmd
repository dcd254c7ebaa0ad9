$ qconf -srqs layout,second
