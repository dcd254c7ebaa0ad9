$ qconf -sobjl queue pe_list *mpi*
