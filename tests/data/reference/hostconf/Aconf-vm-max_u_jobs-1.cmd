$ qconf -Aconf files/Aconf-vm-max_u_jobs-1/vm
