$ qconf -Acal year-trailing-comma.input
