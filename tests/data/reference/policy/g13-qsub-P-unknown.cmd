# as sgeuser at 2026-11-28T00:09:52Z (epoch 1795824592)
$ qsub -h -P nosuchprj -b y -o /dev/null -e /dev/null /bin/true
