$ qalter -l slots=2 263
