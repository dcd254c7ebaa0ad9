$ qalter -N x 303
