$ sge_as_user env EDITOR=/tmp/ed.sh qconf -aprj
