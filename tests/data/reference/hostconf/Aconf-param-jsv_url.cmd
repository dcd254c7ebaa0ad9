$ qconf -Aconf files/Aconf-param-jsv_url/vm
