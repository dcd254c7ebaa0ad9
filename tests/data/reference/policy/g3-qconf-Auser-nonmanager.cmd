# as sgeuser at 2026-11-27T23:54:02Z (epoch 1795823642)
$ qconf -Auser /work/wt-oracle/tests/data/reference/policy/g3-user-alice-M.txt
