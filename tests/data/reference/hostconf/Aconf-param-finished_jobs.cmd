$ qconf -Aconf files/Aconf-param-finished_jobs/vm
