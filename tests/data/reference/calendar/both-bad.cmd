$ qconf -Acal both-bad.input
