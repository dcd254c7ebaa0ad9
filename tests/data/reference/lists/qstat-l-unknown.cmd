qstat -f -l nosuch=1
