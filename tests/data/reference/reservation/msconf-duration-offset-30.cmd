qconf -Msconf /tmp/plan-s.conf
