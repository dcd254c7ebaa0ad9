# as root at 2026-11-27T23:53:49Z (epoch 1795823629)
$ sh -c qconf -sconf | grep -E '^(enforce_user|enforce_project|auto_user_|max_u_jobs|max_jobs|max_aj_)'
