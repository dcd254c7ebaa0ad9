$ qconf -srqs en_1,en_0,en_TRUE,en_false,en_True
