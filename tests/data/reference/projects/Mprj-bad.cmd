$ qconf -Mprj Mprj-bad.input
