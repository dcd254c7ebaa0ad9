$ (on host localhost) qdel 302
