$ qstat -j 97 -xml
