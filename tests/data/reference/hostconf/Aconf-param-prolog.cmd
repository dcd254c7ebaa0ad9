$ qconf -Aconf files/Aconf-param-prolog/vm
