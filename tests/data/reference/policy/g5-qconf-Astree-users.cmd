# as root at 2026-11-27T23:56:36Z (epoch 1795823797)
$ qconf -Astree /work/wt-oracle/tests/data/reference/policy/g5-stree-users.txt
