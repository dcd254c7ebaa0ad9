$ qconf -Arqs ref-unknown-queue.input
