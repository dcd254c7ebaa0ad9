$ qconf -Aconf files/Aconf-param-auto_user_oticket/vm
