$ qalter -w w -N qa3 36
