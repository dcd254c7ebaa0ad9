qselect -x
