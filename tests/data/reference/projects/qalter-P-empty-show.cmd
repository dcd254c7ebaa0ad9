$ qstat -j 110 | grep -E '^(job_number|project)'
