$ qconf -Aprj Aprj-comments.input
