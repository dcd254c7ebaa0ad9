$ qsub -h -b y -l h_vmem=1G -soft -l h_rt=0:10:0,cstr=x -hard -l cint=1 -soft -l cdbl=2 /bin/true
