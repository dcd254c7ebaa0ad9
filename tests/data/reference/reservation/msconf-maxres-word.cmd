qconf -Msconf /tmp/plan-v-msconf-maxres-word.conf
