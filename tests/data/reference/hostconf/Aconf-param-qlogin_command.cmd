$ qconf -Aconf files/Aconf-param-qlogin_command/vm
