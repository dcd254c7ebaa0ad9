qconf -Mrqs /tmp/plan-rqs2 plan_rqs
