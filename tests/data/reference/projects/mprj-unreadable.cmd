$ EDITOR=/tmp/ed.sh qconf -mprj p1
