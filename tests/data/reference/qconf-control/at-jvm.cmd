$ qconf -at jvm
