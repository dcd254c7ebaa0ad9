$ qconf -Arqs filter-15.input
