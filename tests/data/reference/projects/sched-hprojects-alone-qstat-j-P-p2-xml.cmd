$ qstat -j 139 -xml
