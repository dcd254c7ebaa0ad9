$ qconf -Arqs filter-03.input
