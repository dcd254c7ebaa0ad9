$ qconf -Arqs filter-01.input
