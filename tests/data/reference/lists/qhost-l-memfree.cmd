qhost -l mem_free=100G
