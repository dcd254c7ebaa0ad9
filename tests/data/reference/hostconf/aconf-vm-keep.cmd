$ env EDITOR=/tmp/hcw/ed-keep.sh qconf -aconf vm
