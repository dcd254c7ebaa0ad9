$ qconf -Aconf files/Aconf-param-auto_user_delete_time/vm
