# as sgeuser at 2026-11-27T23:53:33Z (epoch 1795823613)
$ qsub -ot 10 -b y -N ot -o /dev/null -e /dev/null /bin/sleep 60
