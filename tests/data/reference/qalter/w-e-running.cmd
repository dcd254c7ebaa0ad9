$ qalter -w e -N qr2 37
