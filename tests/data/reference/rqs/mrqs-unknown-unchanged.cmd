$ EDITOR=/tmp/ed-keep.sh qconf -mrqs unknown_set
