$ qconf -Arqs desc-quoted-blanks.input
