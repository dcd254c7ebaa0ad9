$ (on host localhost) qstat -j 303
