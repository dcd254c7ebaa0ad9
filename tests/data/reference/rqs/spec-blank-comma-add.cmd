$ qconf -Arqs spec-blank-comma.input
