$ qconf -Arqs filter-11.input
