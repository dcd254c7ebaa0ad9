$ qconf -Arqs enabled-tRuE.input
