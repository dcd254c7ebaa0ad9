qstat -s prsz
