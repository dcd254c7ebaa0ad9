$ qconf -Aprj Aprj-fshare-02.input
