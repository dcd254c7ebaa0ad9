qping -help
