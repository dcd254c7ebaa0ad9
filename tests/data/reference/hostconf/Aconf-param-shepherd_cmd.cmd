$ qconf -Aconf files/Aconf-param-shepherd_cmd/vm
