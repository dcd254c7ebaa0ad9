$ qconf -Aconf files/Aconf-empty/vm
