qconf -Msconf /tmp/plan-v-msconf-maxres-float.conf
