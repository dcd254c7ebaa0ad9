qconf -Msconf /tmp/m0d0.conf
