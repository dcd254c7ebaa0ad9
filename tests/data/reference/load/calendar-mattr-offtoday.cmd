$ qconf -mattr queue calendar offtoday cal.q
