$ EDITOR=/tmp/ed.sh qconf -mrqs rule_set_3
