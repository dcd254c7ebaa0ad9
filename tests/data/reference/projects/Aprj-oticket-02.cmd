$ qconf -Aprj Aprj-oticket-02.input
