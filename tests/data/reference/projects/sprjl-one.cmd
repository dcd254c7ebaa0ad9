$ qconf -sprjl
