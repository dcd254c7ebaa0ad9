$ qconf -Arqs Arqs-projects-p1.input
