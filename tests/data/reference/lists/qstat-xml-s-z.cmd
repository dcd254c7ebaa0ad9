qstat -xml -s z
