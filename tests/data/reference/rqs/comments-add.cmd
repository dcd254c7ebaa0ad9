$ qconf -Arqs comments.input
