$ qconf -sobjl queue slots 999
