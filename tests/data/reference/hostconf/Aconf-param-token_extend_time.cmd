$ qconf -Aconf files/Aconf-param-token_extend_time/vm
