$ qconf -Aprj Aprj-fshare-03.input
