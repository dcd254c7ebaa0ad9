$ qconf -Acal year-garbage.input
