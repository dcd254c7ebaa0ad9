$ qconf -Acal year-bad-state.input
