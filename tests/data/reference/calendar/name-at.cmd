$ qconf -Acal name-at.input
