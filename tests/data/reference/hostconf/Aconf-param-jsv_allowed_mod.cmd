$ qconf -Aconf files/Aconf-param-jsv_allowed_mod/vm
