$ qalter -w w -N norun3 52
