$ qconf -Acal year-sus.input
