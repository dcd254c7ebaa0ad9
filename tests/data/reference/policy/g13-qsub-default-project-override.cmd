# as sgeuser4 at 2026-11-28T00:10:16Z (epoch 1795824616)
$ qsub -h -P p80 -b y -N adp2 -o /dev/null -e /dev/null /bin/true
