$ qconf -Arqs spec-expanded-blank.input
