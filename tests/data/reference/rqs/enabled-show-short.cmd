$ qconf -srqs en_y,en_n,en_t,en_f
