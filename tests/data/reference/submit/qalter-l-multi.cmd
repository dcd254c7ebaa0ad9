$ qalter -l h_vmem=2G,cbool=true,ctime=0:1:30 263
