$ (as root) qdel 302
