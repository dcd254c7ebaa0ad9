$ qsub -h -b y -l 'arch=lx-amd64|sol-amd64' /bin/true
