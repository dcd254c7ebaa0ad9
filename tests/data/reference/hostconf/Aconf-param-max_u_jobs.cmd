$ qconf -Aconf files/Aconf-param-max_u_jobs/vm
