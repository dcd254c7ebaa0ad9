qconf -help
