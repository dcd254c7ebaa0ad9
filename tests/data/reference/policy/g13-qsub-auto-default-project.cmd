# as sgeuser4 at 2026-11-28T00:10:15Z (epoch 1795824615)
$ qsub -h -b y -N adp -o /dev/null -e /dev/null /bin/true
