qconf -Msconf /tmp/plan-v-msconf-params-monitor-bad.conf
