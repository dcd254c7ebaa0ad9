$ qconf -Aconf files/Aconf-param-max_unheard/vm
