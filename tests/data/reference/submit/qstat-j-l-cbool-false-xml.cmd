$ qstat -j 13 -xml
