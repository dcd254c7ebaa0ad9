$ sge_as_user env EDITOR=/tmp/ed-keep.sh qconf -mprj p1
