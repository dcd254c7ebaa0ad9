$ qconf -scal yr
