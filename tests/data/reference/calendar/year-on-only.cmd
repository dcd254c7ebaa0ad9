$ qconf -Acal year-on-only.input
