qconf -Msconf /tmp/plan-v-msconf-params-profile.conf
