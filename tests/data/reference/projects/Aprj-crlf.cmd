$ qconf -Aprj Aprj-crlf.input
