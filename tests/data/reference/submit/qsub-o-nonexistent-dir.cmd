$ qsub -h -b y -o /nonexistent/dir/x /bin/true
