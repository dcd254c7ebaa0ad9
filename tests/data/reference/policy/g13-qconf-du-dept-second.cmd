# as root at 2026-11-28T00:09:52Z (epoch 1795824592)
$ qconf -au sgeuser2 defaultdepartment
