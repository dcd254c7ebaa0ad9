$ (as root) qalter -N x 302
