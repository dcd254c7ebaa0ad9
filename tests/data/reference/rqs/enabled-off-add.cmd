$ qconf -Arqs enabled-off.input
