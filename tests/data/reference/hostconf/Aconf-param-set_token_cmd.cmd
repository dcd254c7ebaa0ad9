$ qconf -Aconf files/Aconf-param-set_token_cmd/vm
