$ qalter -N again 299
