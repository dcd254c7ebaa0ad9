$ qconf -Acal Acal-yeardate-only.input
