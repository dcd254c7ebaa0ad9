$ EDITOR=/tmp/ed-keep.sh qconf -mprj nosuch
