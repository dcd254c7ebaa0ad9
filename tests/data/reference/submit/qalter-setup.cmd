$ qsub -terse -h -b y -N alter_me -l h_vmem=1G,h_rt=100 -soft -l s_rt=0:5:0 /bin/true
