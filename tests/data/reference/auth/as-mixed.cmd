$ (as root) qconf -as nosuchhost.invalid,localhost
