$ qconf -Acal year-state-only.input
