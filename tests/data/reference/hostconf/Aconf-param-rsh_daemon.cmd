$ qconf -Aconf files/Aconf-param-rsh_daemon/vm
