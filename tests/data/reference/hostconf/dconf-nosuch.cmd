$ qconf -dconf nosuch.invalid
