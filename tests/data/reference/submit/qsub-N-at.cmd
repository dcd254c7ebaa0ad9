$ qsub -h -b y -N a@b /bin/true
