$ qconf -Acal year-2038.input
