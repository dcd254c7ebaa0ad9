# as root at 2026-11-27T23:57:45Z (epoch 1795823865)
$ qconf -Astree /work/wt-oracle/tests/data/reference/policy/g5-stree-full.txt
