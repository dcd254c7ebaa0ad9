qconf -Msconf /tmp/plan-v-msconf-params-pe-range.conf
