qstat -f -l arch=foo
