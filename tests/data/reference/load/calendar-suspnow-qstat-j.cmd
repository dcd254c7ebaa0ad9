$ qstat -j 211 | sed -n '/^scheduling info/,$p'
