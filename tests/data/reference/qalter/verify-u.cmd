$ qalter -verify -u sgeuser -N x
