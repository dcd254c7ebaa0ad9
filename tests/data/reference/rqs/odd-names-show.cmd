$ qconf -srqs 1abc,a.b,a-b_c9,_abc,noto2,emptyto,duprule
