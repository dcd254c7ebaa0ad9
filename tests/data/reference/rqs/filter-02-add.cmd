$ qconf -Arqs filter-02.input
