$ qconf -Aprj Aprj-fshare-04.input
