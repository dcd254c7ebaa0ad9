$ qconf -sobjl queue_domain slots 1
