qhost -l nosuch=1
