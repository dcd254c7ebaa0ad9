$ qconf -Arqs filter-05.input
