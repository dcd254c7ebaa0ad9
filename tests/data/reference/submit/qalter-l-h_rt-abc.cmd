$ qalter -l h_rt=abc 263
