$ qconf -Aconf files/Aconf-param-load_report_time/vm
