qselect -qs X
