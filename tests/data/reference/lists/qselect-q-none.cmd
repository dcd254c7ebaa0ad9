qselect -q nosuch.q
