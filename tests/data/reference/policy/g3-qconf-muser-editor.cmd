# as root at 2026-11-27T23:53:59Z (epoch 1795823639)
$ env EDITOR=/tmp/ed-muser.sh qconf -muser alice
