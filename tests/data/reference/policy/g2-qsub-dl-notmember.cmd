# as sgeuser at 2026-11-27T23:53:20Z (epoch 1795823600)
$ qsub -dl 202611280008 -b y -N dlno -o /dev/null -e /dev/null /bin/sleep 60
