$ qstat -j 100 | grep -E '^(job_number|project)'
