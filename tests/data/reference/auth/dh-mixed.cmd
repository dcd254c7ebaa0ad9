$ (as root) qconf -dh nosuchhost.invalid,localhost
