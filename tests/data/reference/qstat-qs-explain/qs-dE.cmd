$ qstat -qs dE
