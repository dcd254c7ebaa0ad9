$ EDITOR=/tmp/ed.sh qconf -mrqs unknown_set
