$ EDITOR=/tmp/loadw/ed.sh qconf -acal cal1
