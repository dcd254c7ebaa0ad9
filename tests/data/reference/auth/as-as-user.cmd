$ qconf -as localhost
