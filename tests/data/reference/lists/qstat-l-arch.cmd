qstat -f -l arch=lx-amd64
