qconf -Msconf /tmp/plan-v-msconf-params-monitor-2.conf
