$ qalter -u * -N byuser
