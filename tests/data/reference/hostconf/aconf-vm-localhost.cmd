$ EDITOR=/tmp/hcw/ed.sh qconf -aconf vm,localhost
