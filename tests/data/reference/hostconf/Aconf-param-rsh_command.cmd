$ qconf -Aconf files/Aconf-param-rsh_command/vm
