$ qalter -w w -l arch=nosuch 36
