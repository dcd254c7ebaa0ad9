$ EDITOR=/tmp/ed.sh qconf -arqs rule_set_1
