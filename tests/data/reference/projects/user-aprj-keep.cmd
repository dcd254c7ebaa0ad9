$ sge_as_user env EDITOR=/tmp/ed-keep.sh qconf -aprj
