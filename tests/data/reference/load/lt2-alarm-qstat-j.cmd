$ qstat -j 225 | sed -n '/^scheduling info/,$p'
