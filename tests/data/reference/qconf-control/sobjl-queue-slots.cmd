$ qconf -sobjl queue slots 1
