$ qconf -Arqs continuation.input
