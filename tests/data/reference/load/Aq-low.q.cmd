$ qconf -Aq Aq-low.q.input
