qacct -help
