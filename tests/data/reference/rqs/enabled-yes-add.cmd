$ qconf -Arqs enabled-yes.input
