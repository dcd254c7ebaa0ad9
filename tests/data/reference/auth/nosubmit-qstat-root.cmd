$ (as root) qstat -u '*'
