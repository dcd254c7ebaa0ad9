$ qconf -km
