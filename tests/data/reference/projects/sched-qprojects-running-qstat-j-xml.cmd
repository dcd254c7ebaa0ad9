$ qstat -j 120 -xml
