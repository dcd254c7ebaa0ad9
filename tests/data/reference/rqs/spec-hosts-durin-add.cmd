$ qconf -Arqs spec-hosts-durin.input
