$ qconf -Mrqs err-unknown-complex.input nosuchattr
