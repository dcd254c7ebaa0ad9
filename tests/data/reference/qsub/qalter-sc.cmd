$ qalter -sc c=3 292
