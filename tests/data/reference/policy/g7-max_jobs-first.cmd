# as sgeuser at 2026-11-28T00:01:09Z (epoch 1795824069)
$ qsub -h -b y -N mj1 -o /dev/null -e /dev/null /bin/sleep 300
