$ qconf -Acal Acal-badname.input
