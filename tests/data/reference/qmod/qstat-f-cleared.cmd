$ (as root) qstat -f
