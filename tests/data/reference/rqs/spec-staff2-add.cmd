$ qconf -Arqs spec-staff2.input
