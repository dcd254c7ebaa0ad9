qstat -g t -f -xml
