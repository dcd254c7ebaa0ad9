qconf -Msconf /tmp/plan-v-msconf-dd-seconds.conf
