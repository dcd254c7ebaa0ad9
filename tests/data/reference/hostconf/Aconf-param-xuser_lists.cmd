$ qconf -Aconf files/Aconf-param-xuser_lists/vm
