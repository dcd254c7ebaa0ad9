$ qconf -Aconf files/Aconf-param-epilog/vm
