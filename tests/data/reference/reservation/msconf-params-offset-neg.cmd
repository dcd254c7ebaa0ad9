qconf -Msconf /tmp/plan-v-msconf-params-offset-neg.conf
