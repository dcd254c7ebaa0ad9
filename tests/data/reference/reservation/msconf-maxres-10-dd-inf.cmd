qconf -Msconf /tmp/inf.conf
