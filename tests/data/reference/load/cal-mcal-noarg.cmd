$ EDITOR=/tmp/loadw/ed-keep.sh qconf -mcal
