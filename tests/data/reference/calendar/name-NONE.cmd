$ qconf -Acal name-NONE.input
