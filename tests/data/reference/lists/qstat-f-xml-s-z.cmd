qstat -f -xml -s prsz
