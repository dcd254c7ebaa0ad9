$ EDITOR=/tmp/ed.sh qconf -mrqs rule_set_4,rule_set_6
