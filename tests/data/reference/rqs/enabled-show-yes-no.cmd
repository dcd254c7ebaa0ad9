$ qconf -srqs en_yes,en_no
