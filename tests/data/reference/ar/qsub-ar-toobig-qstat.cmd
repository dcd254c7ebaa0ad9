sgeuser$ qstat -u sgeuser
