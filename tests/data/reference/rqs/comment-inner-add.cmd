$ qconf -Arqs comment-inner.input
