$ EDITOR=/tmp/ed.sh qconf -aprj p8
