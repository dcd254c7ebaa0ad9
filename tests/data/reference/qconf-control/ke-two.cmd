$ qconf -ke nosuchhost.invalid,vm
