qconf -Msconf /tmp/plan-v-msconf-params-monitor-TRUE.conf
