$ qconf -Arqs spec-staff.input
