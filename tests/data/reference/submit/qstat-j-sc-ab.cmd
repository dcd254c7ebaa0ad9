$ qstat -j 242
