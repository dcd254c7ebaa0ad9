$ qconf -Aconf files/Aconf-param-reprioritize/vm
