# as sgeuser at 2026-11-27T23:53:21Z (epoch 1795823601)
$ qsub -dl notadate -b y -o /dev/null -e /dev/null /bin/sleep 60
