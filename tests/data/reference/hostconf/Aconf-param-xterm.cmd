$ qconf -Aconf files/Aconf-param-xterm/vm
