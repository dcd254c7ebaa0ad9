qhost -l arch=lx-amd64
