$ qconf -Acal Acal-weekbadstate.input
