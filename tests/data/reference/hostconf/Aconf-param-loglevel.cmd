$ qconf -Aconf files/Aconf-param-loglevel/vm
