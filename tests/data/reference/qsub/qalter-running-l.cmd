$ qalter -l h_rt=200 299
