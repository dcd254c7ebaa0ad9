qconf -Msconf /tmp/plan-v-msconf-dd-zero.conf
