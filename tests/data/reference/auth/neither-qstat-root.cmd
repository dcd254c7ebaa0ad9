$ (as root, on host localhost) qstat -u '*'
