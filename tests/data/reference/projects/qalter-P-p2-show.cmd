$ qstat -j 103 | grep -E '^(job_number|project)'
