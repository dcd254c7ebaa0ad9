$ EDITOR=/tmp/ed.sh qconf -arqs
