$ qconf -srqs max_slots_on_every_host
