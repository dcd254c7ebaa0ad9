qalter -R x 135
