$ qconf -kej nosuchhost.invalid
