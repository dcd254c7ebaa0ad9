$ env EDITOR=/tmp/hcw/ed-keep.sh qconf -mconf vm
