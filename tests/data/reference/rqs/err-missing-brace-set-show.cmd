$ qconf -srqs brace2
