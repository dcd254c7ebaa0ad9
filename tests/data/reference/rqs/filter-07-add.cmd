$ qconf -Arqs filter-07.input
