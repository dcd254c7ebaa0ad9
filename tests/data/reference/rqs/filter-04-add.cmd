$ qconf -Arqs filter-04.input
