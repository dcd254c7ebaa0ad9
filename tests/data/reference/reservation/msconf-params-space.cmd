qconf -Msconf /tmp/plan-v-msconf-params-space.conf
