qalter -help
