$ qconf -dprj pq
