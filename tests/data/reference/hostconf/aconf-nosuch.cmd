$ EDITOR=/tmp/hcw/ed.sh qconf -aconf nosuch.invalid
