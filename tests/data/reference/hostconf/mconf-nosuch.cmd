$ EDITOR=/tmp/hcw/ed.sh qconf -mconf nosuch.invalid
