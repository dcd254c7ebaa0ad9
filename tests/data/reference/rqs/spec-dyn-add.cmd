$ qconf -Arqs spec-dyn.input
