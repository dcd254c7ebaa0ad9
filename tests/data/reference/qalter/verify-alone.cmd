$ qalter -verify 36
