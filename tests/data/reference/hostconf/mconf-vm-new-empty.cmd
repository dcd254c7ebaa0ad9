$ EDITOR=/tmp/hcw/ed.sh qconf -mconf vm
