$ qstat -j 36 -xml
