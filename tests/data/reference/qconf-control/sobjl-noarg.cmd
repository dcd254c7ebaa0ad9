$ qconf -sobjl queue slots
