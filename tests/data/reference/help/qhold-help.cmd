qhold -help
