$ qstat -j 119 -xml
