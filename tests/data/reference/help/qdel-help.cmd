qdel -help
