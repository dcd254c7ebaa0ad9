qhost -help
