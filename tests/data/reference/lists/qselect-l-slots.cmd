qselect -l slots=1
