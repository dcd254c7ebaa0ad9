$ qconf -mattr queue calendar NONE cal.q
