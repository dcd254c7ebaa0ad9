$ qalter -P pacl 103
