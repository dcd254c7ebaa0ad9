$ (on host localhost) qsub -h -N fromlocal -b y /bin/true
