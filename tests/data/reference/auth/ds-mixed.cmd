$ (as root) qconf -ds nosuchhost.invalid,localhost
