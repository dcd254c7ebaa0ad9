$ qconf -kt
