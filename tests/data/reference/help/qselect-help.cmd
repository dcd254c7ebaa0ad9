qselect -help
