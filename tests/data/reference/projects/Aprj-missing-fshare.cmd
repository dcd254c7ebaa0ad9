$ qconf -Aprj Aprj-missing-fshare.input
