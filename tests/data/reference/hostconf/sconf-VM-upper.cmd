$ qconf -sconf VM
