$ EDITOR=/tmp/ed-keep.sh qconf -mconf
