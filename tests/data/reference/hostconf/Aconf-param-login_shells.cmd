$ qconf -Aconf files/Aconf-param-login_shells/vm
