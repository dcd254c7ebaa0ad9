$ qconf -Aconf files/Aconf-param-min_uid/vm
