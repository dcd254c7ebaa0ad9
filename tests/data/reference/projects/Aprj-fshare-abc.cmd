$ qconf -Aprj Aprj-fshare-abc.input
