$ qconf -srqs after_to
