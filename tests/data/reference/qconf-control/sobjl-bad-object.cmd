$ qconf -sobjl pe slots 1
