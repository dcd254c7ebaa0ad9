$ qconf -srqs en_1,nosuch
