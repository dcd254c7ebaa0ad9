# as root at 2026-11-27T23:56:22Z (epoch 1795823782)
$ qconf -Astree /work/wt-oracle/tests/data/reference/policy/g5-stree-nonpreorder.txt
