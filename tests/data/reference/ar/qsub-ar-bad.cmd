sgeuser$ qsub -ar abc -b y /bin/sleep 5
