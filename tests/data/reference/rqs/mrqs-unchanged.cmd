$ EDITOR=/tmp/ed-keep.sh qconf -mrqs rule_set_3
