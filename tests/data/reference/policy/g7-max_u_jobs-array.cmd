# as sgeuser2 at 2026-11-28T00:01:07Z (epoch 1795824067)
$ qsub -h -t 1-3 -b y -N mu3 -o /dev/null -e /dev/null /bin/sleep 300
