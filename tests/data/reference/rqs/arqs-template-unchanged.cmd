$ EDITOR=/tmp/ed-keep.sh qconf -arqs
