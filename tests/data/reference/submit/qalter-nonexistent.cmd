$ qalter -l h_rt=100 999999
