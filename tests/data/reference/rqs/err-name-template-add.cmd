$ qconf -Arqs err-name-template.input
