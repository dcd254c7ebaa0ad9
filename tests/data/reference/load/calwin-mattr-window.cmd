$ qconf -mattr queue calendar window cal.q
