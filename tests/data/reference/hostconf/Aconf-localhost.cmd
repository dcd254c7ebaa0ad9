$ qconf -Aconf files/Aconf-localhost/localhost
