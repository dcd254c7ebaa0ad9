qconf -Msconf /tmp/plan-v-msconf-maxres-neg.conf
