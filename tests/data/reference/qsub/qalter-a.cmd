$ qalter -a 12302359 264
