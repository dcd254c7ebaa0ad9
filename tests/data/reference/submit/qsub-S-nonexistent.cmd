$ qsub -h -b y -S /nonexistent/shell /bin/true
