$ qconf -Mprj Mprj-nonexisting.input
