# as root at 2026-11-27T23:56:05Z (epoch 1795823765)
$ qconf -Astree /work/wt-oracle/tests/data/reference/policy/g5-stree-users.txt
