$ qconf -Arqs filter-16.input
