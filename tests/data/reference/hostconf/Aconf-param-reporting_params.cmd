$ qconf -Aconf files/Aconf-param-reporting_params/vm
