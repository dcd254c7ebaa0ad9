$ qstat -f -qs D
