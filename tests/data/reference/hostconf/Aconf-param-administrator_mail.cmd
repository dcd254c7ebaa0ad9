$ qconf -Aconf files/Aconf-param-administrator_mail/vm
