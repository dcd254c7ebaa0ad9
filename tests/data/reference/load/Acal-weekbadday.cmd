$ qconf -Acal Acal-weekbadday.input
