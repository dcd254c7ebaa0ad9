$ qstat -j 103,110 | grep -E '^(job_number|project)'
