$ EDITOR=/tmp/ed-keep.sh qconf -mprj p1,p2
