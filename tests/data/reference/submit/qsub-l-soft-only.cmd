$ qsub -h -b y -soft -l cint=2,arch=lx-amd64 /bin/true
