# as root at 2026-11-28T00:10:09Z (epoch 1795824609)
$ qconf -Mstree /work/wt-oracle/tests/data/reference/policy/g5-stree-users.txt
