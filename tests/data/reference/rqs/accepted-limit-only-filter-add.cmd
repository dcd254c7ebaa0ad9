$ qconf -Arqs accepted-limit-only-filter.input
