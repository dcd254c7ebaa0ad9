qselect -l arch=lx-amd64
