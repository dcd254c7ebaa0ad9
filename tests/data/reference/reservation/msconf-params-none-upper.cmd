qconf -Msconf /tmp/plan-v-msconf-params-none-upper.conf
