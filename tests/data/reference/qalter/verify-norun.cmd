$ qalter -verify -N x 52
