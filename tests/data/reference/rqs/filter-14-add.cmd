$ qconf -Arqs filter-14.input
