$ qalter -N x 302
