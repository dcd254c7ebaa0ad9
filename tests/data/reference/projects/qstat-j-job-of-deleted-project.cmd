$ qstat -j 93 | grep -E '^(job_number|project)'
