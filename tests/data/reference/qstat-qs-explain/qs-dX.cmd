$ qstat -qs dX
