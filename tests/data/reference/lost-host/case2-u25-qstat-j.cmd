qstat -j 316
