$ qconf -Aconf files/Aconf-param-user_lists/vm
