$ qconf -srqs en_YES,en_tRuE,en_N
