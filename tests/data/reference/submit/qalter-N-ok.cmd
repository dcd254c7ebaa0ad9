$ qalter -N renamed 263
