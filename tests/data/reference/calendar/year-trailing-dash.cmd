$ qconf -Acal year-trailing-dash.input
