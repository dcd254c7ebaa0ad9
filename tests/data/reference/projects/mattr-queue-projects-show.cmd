$ qconf -sq all.q | grep projects
