$ (as root) qconf -ah nosuchhost.invalid,localhost
