$ qconf -mattr queue calendar nosuchcal cal.q
