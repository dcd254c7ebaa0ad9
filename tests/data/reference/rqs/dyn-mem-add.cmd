$ qconf -Arqs dyn-mem.input
