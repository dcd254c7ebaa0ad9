$ qconf -Aprj Aprj-fshare-neg.input
