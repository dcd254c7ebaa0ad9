$ qconf -Acal Acal-yearbadday.input
