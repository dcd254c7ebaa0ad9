qstat -t -xml
