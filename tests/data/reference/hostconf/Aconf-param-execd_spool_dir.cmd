$ qconf -Aconf files/Aconf-param-execd_spool_dir/vm
