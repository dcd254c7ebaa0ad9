$ qstat -j 29 -xml
