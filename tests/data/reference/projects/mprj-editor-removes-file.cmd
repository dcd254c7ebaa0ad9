$ EDITOR=/tmp/ed-rm.sh qconf -mprj p1
