$ qconf -Arqs filter-18.input
