$ qconf -Arqs desc-unquoted-word.input
