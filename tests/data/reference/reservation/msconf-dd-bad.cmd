qconf -Msconf /tmp/plan-v-msconf-dd-bad.conf
