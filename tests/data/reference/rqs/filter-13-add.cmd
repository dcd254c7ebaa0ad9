$ qconf -Arqs filter-13.input
