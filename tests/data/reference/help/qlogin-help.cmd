qlogin -help
