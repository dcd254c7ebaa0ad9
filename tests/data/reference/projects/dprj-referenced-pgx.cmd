$ qconf -dprj pgx
