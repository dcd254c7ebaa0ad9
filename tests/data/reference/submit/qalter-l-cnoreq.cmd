$ qalter -l cnoreq=x 263
