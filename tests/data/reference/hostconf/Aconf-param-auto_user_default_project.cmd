$ qconf -Aconf files/Aconf-param-auto_user_default_project/vm
