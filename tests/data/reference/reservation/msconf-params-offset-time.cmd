qconf -Msconf /tmp/plan-v-msconf-params-offset-time.conf
