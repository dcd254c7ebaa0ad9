$ qalter -ac a=1,b=2 292
