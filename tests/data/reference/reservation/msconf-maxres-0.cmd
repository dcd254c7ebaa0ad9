qconf -Msconf /tmp/m0.conf
