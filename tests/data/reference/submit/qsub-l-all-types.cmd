$ qsub -h -b y -l 'h_rt=1:0:0,h_vmem=1.5G,cint=2,cdbl=1.50,cbool=true,cstr=AbC,ccstr=AbC,crestr=a*,chost=vm,arch=lx-amd64' -soft -l s_rt=0:10:0,mem_free=2G /bin/true
