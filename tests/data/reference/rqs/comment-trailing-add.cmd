$ qconf -Arqs comment-trailing.input
