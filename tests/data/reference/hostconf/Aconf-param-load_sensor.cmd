$ qconf -Aconf files/Aconf-param-load_sensor/vm
