# as sgeuser2 at 2026-11-28T00:09:52Z (epoch 1795824592)
$ qsub -h -P px -b y -o /dev/null -e /dev/null /bin/true
