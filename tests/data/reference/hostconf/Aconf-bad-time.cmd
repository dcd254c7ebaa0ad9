$ qconf -Aconf files/Aconf-bad-time/vm
