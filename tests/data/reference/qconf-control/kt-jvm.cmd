$ qconf -kt jvm
