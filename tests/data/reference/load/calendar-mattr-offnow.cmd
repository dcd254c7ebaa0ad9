$ qconf -mattr queue calendar offnow cal.q
