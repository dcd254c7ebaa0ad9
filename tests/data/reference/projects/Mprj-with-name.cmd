$ qconf -Mprj Mprj-existing.input p2
