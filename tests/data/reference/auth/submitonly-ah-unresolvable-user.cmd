$ (on host localhost) qconf -ah nosuchhost.invalid
