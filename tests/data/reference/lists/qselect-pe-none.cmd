qselect -pe nosuch
