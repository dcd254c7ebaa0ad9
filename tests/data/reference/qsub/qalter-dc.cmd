$ qalter -dc b 292
