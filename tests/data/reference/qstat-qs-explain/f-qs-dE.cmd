$ qstat -f -qs dE
