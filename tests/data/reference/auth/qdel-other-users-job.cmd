$ qdel 302
