$ EDITOR=/tmp/ed-rm.sh qconf -aprj
