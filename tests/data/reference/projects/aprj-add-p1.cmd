$ EDITOR=/tmp/ed.sh qconf -aprj
