$ qalter -w e -l arch=nosuch 53
