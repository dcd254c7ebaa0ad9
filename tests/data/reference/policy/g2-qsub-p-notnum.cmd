# as sgeuser at 2026-11-27T23:52:53Z (epoch 1795823573)
$ qsub -p abc -b y -o /dev/null -e /dev/null /bin/sleep 60
