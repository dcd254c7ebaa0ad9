# as sgeuser4 at 2026-11-28T00:10:16Z (epoch 1795824616)
$ qsub -h -b y -o /dev/null -e /dev/null /bin/true
