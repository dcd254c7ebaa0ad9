$ qconf -sconfl
