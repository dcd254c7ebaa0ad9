$ qconf -kt nosuch
