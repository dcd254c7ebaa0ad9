$ qsub -h -b y -soft -l h_rt=0:10:0 -hard -l h_vmem=1G /bin/true
