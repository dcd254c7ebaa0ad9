$ qconf -sobjl queue_instance slots 4
