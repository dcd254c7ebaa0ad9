$ qalter -verify -N never 36
