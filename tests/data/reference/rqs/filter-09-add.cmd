$ qconf -Arqs filter-09.input
