$ qconf -Arqs desc-unquoted-blanks.input
