$ qconf -Arqs max_u_slots.input
