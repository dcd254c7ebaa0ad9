qconf -Msconf /tmp/plan-v-msconf-params-monitor-bare.conf
