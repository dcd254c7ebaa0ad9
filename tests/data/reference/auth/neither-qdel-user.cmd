$ (on host localhost) qdel 303
