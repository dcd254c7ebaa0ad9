$ qconf -Aconf files/Aconf-param-enforce_project/vm
