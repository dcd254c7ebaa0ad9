$ qconf -Aconf files/Aconf-param-rlogin_daemon/vm
