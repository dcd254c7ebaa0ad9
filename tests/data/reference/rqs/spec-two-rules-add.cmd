$ qconf -Arqs spec-two-rules.input
