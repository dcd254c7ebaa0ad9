qselect -l mem_free=100G
