$ EDITOR=/tmp/ed-keep.sh qconf -mprj p1
