$ qconf -Arqs projects-filter.input
