$ EDITOR=/tmp/loadw/ed.sh qconf -mconf vm
