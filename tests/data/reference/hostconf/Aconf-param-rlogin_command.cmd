$ qconf -Aconf files/Aconf-param-rlogin_command/vm
