$ qconf -mattr queue xprojects nosuch all.q
