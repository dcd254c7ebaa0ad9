$ qstat -j 228
