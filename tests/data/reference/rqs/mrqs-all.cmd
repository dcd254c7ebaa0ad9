$ EDITOR=/tmp/ed.sh qconf -mrqs
