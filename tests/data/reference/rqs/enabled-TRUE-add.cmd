$ qconf -Arqs enabled-TRUE.input
