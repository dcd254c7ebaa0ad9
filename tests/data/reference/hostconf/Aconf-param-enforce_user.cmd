$ qconf -Aconf files/Aconf-param-enforce_user/vm
