$ (as root) qhold 302
