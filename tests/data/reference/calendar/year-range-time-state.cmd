$ qconf -Acal year-range-time-state.input
