$ qconf -Arqs spec-hosts-lx.input
