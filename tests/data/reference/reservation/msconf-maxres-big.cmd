qconf -Msconf /tmp/plan-v-msconf-maxres-big.conf
