qstat -xml -s prsz
