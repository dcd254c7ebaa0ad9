$ qalter -w p -N never 36
