$ qconf -sobjl queue nosuch 1
