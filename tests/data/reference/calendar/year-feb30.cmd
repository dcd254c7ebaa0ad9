$ qconf -Acal year-feb30.input
