# as sgeuser3 at 2026-11-27T23:54:10Z (epoch 1795823650)
$ qsub -h -b y -N auto3 -o /dev/null -e /dev/null /bin/sleep 60
