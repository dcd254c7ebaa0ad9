$ EDITOR=/tmp/loadw/ed-keep.sh qconf -acal
