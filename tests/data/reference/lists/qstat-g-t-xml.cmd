qstat -g t -xml
