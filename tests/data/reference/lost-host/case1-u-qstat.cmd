qstat -u *
