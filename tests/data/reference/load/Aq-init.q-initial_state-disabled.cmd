$ qconf -Aq Aq-init.q-initial_state-disabled.input
