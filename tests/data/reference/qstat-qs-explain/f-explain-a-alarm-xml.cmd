$ qstat -f -explain a -xml
