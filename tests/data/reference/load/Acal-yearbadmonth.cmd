$ qconf -Acal Acal-yearbadmonth.input
