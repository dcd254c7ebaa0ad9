# as root at 2026-11-28T00:09:51Z (epoch 1795824591)
$ qconf -Aprj /work/wt-oracle/tests/data/reference/policy/g4-prj-p80.txt
