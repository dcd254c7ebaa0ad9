$ qconf -Arqs err-empty-file.input
