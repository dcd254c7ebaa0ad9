# as sgeuser at 2026-11-28T00:01:07Z (epoch 1795824067)
$ qsub -h -b y -N mu1 -o /dev/null -e /dev/null /bin/sleep 300
