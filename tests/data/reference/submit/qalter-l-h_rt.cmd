$ qalter -l h_rt=1:0:0 263
