$ qconf -sds
