$ qalter -w v -l arch=nosuch 53
