$ qalter -A acct2 291
