$ qconf -Aconf files/Aconf-param-projects/vm
