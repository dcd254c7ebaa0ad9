qconf -Msconf /tmp/plan-v-msconf-params-semicolon.conf
