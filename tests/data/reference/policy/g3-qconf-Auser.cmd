# as root at 2026-11-27T23:53:49Z (epoch 1795823629)
$ qconf -Auser /work/wt-oracle/tests/data/reference/policy/g3-user-sgeuser2.txt
