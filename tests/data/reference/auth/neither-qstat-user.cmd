$ (on host localhost) qstat
