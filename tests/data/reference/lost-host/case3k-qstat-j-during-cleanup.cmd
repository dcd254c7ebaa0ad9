qstat -j 317 | tail -3   (taken at 00:39:29, job Rq after execd restart, old run still being cleaned up)
