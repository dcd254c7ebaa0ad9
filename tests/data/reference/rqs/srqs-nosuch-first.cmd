$ qconf -srqs nosuch,en_1
