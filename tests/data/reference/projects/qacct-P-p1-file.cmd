$ qacct -P p1 -f qacct-projects-accounting.input
