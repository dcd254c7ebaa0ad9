qconf -Msconf /tmp/plan-v-msconf-params-monitor-y.conf
