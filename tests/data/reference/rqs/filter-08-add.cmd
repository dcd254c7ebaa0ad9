$ qconf -Arqs filter-08.input
