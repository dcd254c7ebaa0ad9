qconf -Msconf /tmp/plan-v-msconf-params-dup.conf
