$ EDITOR=/tmp/ed.sh qconf -arqs wanted_name
