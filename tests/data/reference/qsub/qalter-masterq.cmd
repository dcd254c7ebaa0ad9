$ qalter -masterq all.q 291
