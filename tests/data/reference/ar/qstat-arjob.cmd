sgeuser$ qstat
