$ qconf -Arqs crlf.input
