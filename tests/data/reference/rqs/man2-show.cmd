$ qconf -srqs max_virtual_free_on_lx_hosts
