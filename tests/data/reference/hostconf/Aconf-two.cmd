$ qconf -Aconf files/Aconf-two-a/vm,files/Aconf-two-b/localhost
