$ EDITOR=/tmp/loadw/ed.sh qconf -mcal cal1
