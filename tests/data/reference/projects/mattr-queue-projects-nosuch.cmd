$ qconf -mattr queue projects nosuch all.q
