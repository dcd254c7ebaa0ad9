$ qconf -Arqs err-blank-file.input
