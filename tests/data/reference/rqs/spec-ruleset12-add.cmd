$ qconf -Arqs spec-ruleset12.input
