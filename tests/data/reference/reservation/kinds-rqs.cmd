qconf -Arqs /tmp/plan-rqs
