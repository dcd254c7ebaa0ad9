$ qconf -Aconf files/Aconf-param-reschedule_unknown/vm
