$ qstat -f -qs ad
