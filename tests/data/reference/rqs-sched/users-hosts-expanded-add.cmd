$ qconf -Arqs users-hosts-expanded.input
