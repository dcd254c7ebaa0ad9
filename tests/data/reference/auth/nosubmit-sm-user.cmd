$ qconf -sm
