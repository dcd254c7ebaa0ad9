$ qconf -Arqs queues-filter.input
