$ qalter -soft -l mem_free=1G 263
