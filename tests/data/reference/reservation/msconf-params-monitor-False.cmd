qconf -Msconf /tmp/plan-v-msconf-params-monitor-False.conf
