$ qdel 215
