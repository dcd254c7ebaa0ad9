# as root at 2026-11-27T23:53:55Z (epoch 1795823635)
$ qconf -Auser /nonexistent/file
