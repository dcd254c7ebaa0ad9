$ qalter -u root -p -9 53
