qselect -pe
