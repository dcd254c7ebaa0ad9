$ qconf -Acal name-colon.input
