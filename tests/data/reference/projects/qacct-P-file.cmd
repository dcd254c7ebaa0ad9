$ qacct -P -f qacct-projects-accounting.input
