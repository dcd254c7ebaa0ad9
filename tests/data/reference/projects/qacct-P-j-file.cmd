$ qacct -P p1 -j -f qacct-projects-accounting.input
