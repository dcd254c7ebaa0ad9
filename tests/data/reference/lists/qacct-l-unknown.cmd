qacct -l nosuch=1
