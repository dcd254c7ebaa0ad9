qconf -Msconf /tmp/plan-v-msconf-dd-memory.conf
