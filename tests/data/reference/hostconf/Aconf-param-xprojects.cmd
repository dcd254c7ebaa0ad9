$ qconf -Aconf files/Aconf-param-xprojects/vm
