$ qconf -Aconf files/Aconf-param-shell_start_mode/vm
