qsub -now y -terse -b y -l mem_free=1000T /bin/true
