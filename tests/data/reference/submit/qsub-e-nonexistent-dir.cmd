$ qsub -h -b y -e /nonexistent/dir/x /bin/true
