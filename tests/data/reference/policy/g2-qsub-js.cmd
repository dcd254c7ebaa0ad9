# as sgeuser at 2026-11-27T23:53:34Z (epoch 1795823614)
$ qsub -js 5 -b y -N js5 -o /dev/null -e /dev/null /bin/sleep 60
