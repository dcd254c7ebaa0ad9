$ qconf -ah localhost
