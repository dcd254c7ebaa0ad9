$ qstat -j 196 -xml
