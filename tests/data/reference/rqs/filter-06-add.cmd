$ qconf -Arqs filter-06.input
