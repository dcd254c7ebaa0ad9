$ qconf -Acal year-uppercase-state.input
