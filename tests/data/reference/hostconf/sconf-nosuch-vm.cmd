$ qconf -sconf nosuch,vm
