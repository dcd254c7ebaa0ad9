$ qstat -j 101 | grep -E '^(job_number|project)'
