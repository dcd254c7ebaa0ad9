$ sge_as_user env EDITOR=/tmp/ed.sh qconf -mrqs rule_set_4
