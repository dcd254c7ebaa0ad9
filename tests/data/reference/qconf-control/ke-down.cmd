$ qconf -ke vm
