$ qsub -h -b y -l h_vmem=1G,h_rt=10,arch=lx-amd64,cint=2 /bin/true
