# as root at 2026-11-27T23:54:02Z (epoch 1795823642)
$ qconf -duser alice
