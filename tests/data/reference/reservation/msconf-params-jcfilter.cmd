qconf -Msconf /tmp/plan-v-msconf-params-jcfilter.conf
