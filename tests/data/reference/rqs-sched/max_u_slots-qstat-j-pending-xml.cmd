$ qstat -j 149 -xml
