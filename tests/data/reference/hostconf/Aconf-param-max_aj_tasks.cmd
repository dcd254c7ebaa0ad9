$ qconf -Aconf files/Aconf-param-max_aj_tasks/vm
