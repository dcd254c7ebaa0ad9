$ qalter -verify -N x 999999
