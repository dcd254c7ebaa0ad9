$ qconf -scal timeonly
