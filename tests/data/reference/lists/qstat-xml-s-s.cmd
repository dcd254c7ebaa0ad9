qstat -xml -s s
