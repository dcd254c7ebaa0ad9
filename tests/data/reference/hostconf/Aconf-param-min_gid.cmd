$ qconf -Aconf files/Aconf-param-min_gid/vm
