# as root at 2026-11-28T00:06:43Z (epoch 1795824403)
$ env EDITOR=/tmp/ed-ot1.sh qconf -muser sgeuser
