# as root at 2026-11-28T00:06:44Z (epoch 1795824404)
$ qconf -Muser /work/wt-oracle/tests/data/reference/policy/g8-user-sgeuser.txt
