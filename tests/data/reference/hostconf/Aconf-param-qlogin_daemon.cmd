$ qconf -Aconf files/Aconf-param-qlogin_daemon/vm
