$ qconf -Mconf files/Aconf-nosuch/nosuch.invalid
