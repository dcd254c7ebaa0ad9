$ qconf -sconf | grep -E "^(x?projects|enforce_project)"
