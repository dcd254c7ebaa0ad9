# as root at 2026-11-28T00:07:12Z (epoch 1795824432)
$ qconf -Astree /work/wt-oracle/tests/data/reference/policy/g5-stree-users.txt
