# as root at 2026-11-27T23:54:10Z (epoch 1795823650)
$ sh -c qconf -sconf | grep -E '^(enforce_user|auto_user_)'
