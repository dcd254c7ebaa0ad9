$ qconf -secl
