$ qacct -P NONE -f qacct-projects-accounting.input
