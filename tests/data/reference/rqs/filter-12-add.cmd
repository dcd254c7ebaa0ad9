$ qconf -Arqs filter-12.input
