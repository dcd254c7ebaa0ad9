$ qstat -explain u
