# as sgeuser4 at 2026-11-27T23:54:11Z (epoch 1795823651)
$ qsub -h -b y -N e4 -o /dev/null -e /dev/null /bin/sleep 60
