qconf -Msconf /tmp/x.conf
