qselect -l nosuch=1
