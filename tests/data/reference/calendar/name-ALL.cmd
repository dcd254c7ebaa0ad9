$ qconf -Acal name-ALL.input
