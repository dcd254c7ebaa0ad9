qstat -help
