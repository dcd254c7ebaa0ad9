# as root at 2026-11-27T23:58:03Z (epoch 1795823883)
$ env EDITOR=/tmp/ed-ot.sh qconf -muser sgeuser
