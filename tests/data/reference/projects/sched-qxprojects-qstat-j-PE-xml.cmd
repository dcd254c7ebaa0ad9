$ qstat -j 130 -xml
