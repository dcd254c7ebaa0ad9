$ qconf -Arqs ref-unknown-host.input
