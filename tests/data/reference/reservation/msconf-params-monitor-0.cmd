qconf -Msconf /tmp/plan-v-msconf-params-monitor-0.conf
