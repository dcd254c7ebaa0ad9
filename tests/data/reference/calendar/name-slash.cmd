$ qconf -Acal name-slash.input
