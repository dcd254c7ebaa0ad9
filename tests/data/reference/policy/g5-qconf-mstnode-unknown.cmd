# as root at 2026-11-27T23:56:16Z (epoch 1795823776)
$ qconf -mstnode /nosuch=15
