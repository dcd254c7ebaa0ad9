$ qconf -Arqs filter-17.input
