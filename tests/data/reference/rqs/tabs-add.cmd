$ qconf -Arqs tabs.input
