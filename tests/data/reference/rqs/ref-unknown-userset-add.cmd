$ qconf -Arqs ref-unknown-userset.input
