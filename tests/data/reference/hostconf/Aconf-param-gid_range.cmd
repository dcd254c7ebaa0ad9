$ qconf -Aconf files/Aconf-param-gid_range/vm
