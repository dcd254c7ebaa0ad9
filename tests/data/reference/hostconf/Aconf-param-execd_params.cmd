$ qconf -Aconf files/Aconf-param-execd_params/vm
