qconf -Msconf /tmp/plan-v-msconf-params-offset-inf.conf
