$ qconf -Aconf files/Aconf-param-max_aj_instances/vm
