$ qstat -j 201
