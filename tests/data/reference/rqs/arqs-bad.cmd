$ EDITOR=/tmp/ed.sh qconf -arqs ed_bad
