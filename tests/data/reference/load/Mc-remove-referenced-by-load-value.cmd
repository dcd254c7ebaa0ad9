$ qconf -Mc Mc-remove-referenced-by-load-value.input
