$ qconf -Aconf files/Aconf-param-delegated_file_staging/vm
