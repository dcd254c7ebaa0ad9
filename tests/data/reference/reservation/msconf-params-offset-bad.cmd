qconf -Msconf /tmp/plan-v-msconf-params-offset-bad.conf
