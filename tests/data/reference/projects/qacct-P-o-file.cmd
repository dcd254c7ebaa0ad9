$ qacct -P -o -f qacct-projects-accounting.input
