$ qconf -sobjl queue slots *
