$ qconf -Arqs queues-expanded.input
