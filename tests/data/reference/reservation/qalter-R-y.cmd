qalter -R y 135
