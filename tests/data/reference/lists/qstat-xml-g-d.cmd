qstat -xml -g d
