$ qconf -Acal Acal-numname.input
