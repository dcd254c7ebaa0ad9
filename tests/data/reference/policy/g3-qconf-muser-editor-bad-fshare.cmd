# as root at 2026-11-27T23:54:00Z (epoch 1795823640)
$ env EDITOR=/tmp/ed-bad.sh qconf -muser alice
