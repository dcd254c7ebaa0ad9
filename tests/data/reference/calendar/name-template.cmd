$ qconf -Acal name-template.input
