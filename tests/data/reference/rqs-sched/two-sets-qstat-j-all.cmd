$ qstat -j
