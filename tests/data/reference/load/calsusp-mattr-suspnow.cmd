$ qconf -mattr queue calendar suspnow cal.q
