$ qconf -Arqs filter-10.input
