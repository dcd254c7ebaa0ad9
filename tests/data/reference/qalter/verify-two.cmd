$ qalter -verify -N x 52 53
