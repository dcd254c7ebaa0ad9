$ qconf -Aprj Aprj-name-02.input
