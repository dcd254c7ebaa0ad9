$ qconf -Aconf files/Aconf-param-max_jobs/vm
