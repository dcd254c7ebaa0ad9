$ EDITOR=/tmp/ed.sh qconf -mconf
