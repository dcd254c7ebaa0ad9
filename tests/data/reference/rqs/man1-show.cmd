$ qconf -srqs max_u_slots
