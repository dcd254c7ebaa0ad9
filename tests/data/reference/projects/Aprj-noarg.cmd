$ qconf -Aprj
