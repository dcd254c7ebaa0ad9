$ qconf -Aprj Aprj-fshare-01.input
