qconf -Msconf /tmp/plan-v-msconf-params-monitor-offset-empty.conf
