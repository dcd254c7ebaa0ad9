$ qconf -Arqs Arqs-projects-nosuch.input
