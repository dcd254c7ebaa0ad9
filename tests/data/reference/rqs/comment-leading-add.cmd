$ qconf -Arqs comment-leading.input
