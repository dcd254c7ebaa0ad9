$ qconf -Aconf files/Aconf-param-qmaster_params/vm
