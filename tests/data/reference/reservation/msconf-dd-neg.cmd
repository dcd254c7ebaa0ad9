qconf -Msconf /tmp/plan-v-msconf-dd-neg.conf
