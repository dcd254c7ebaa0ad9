$ qsub -h -b y /nonexistent/binary /bin/true
