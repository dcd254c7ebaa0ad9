$ qconf -Aconf files/Aconf-param-mailer/vm
