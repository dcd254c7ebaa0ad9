$ qconf -ke nosuchhost.invalid
