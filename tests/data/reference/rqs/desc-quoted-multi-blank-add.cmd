$ qconf -Arqs desc-quoted-multi-blank.input
