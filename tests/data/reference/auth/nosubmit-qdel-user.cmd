$ qdel 303
