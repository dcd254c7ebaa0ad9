$ qconf -scal dayonly
