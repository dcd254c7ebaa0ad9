$ EDITOR=/tmp/ed-keep.sh qconf -aprj
