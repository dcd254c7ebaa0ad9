$ qalter -w p 52
