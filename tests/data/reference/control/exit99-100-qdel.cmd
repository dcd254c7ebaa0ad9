$ qdel 36 37
