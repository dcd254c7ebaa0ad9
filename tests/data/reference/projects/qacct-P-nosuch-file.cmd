$ qacct -P nosuch -f qacct-projects-accounting.input
