$ qconf -Aconf files/Aconf-nosuch/nosuch.invalid
