$ qconf -Arqs spec-dyn-linux.input
