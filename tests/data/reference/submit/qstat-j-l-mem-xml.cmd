$ qstat -j 3 -xml
