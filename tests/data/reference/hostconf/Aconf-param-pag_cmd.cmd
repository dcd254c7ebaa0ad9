$ qconf -Aconf files/Aconf-param-pag_cmd/vm
