$ (as root) qrls -h u 302
