$ qconf -Mc Mc-add-sensor-complexes.input
