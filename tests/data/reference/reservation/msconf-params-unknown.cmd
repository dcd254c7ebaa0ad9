qconf -Msconf /tmp/plan-v-msconf-params-unknown.conf
