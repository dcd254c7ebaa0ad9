$ qstat -j 224
