$ qsub -h -b y -l h_vmem=1G,s_vmem=512m,h_fsize=1.5K,h_data=1000000,h_stack=2M /bin/true
