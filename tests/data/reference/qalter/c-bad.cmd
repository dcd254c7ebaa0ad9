$ qalter -c q 36
