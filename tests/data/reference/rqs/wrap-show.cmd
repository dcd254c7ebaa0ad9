$ qconf -srqs wrap_test
