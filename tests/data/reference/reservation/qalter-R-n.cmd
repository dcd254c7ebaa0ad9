qalter -R n 135
