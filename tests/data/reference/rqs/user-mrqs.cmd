$ sge_as_user env EDITOR=/tmp/ed-keep.sh qconf -mrqs rule_set_4
