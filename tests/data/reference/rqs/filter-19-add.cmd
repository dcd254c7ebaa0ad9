$ qconf -Arqs filter-19.input
