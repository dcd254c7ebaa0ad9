qconf -Msconf /tmp/plan-v-msconf-params-monitor-true.conf
