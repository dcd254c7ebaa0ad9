$ qconf -Mprj Mprj-existing.input
